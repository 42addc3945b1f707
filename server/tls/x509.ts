/** @peculiar/x509, loaded after the shim it needs and bound to WebCrypto. */
import "./reflect_shim.ts";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(crypto);

export { x509 };
