/**
 * RFC 4515 §4's examples of escaped values (hex digits' case is free), and what Active Directory
 * is asked for nested groups.
 */
import { assertEquals } from "../../../tests/assert.ts";
import { escapeFilterBytes, escapeFilterValue, guidFromBytes } from "./filter_escape.ts";
import { nestedGroupsFilter } from "./directory_client.ts";

Deno.test("RFC 4515: the specials in a value are written as \\XX, the rest as it is", () => {
  assertEquals(
    `(o=${escapeFilterValue("Parens R Us (for all your parenthetical needs)")})`,
    "(o=Parens R Us \\28for all your parenthetical needs\\29)",
  );
  assertEquals(`(cn=*${escapeFilterValue("*")}*)`, "(cn=*\\2a*)");
  assertEquals(`(filename=${escapeFilterValue("C:\\MyFile")})`, "(filename=C:\\5cMyFile)");
  assertEquals(`(bin=${escapeFilterBytes(Uint8Array.of(0, 0, 0, 4))})`, "(bin=\\00\\00\\00\\04)");
  // UTF-8 needs no escape (RFC 4515 §3 UTF1SUBSET); the RFC's Lučić is sent as its bytes.
  assertEquals(`(sn=${escapeFilterValue("Lučić")})`, "(sn=Lučić)");
  assertEquals(escapeFilterValue("nul\u0000"), "nul\\00");
});

Deno.test("RFC 4515: a typed name cannot add terms or wildcards to a filter", () => {
  assertEquals(escapeFilterValue("*)(uid=*"), "\\2a\\29\\28uid=\\2a");
  assertEquals(escapeFilterValue("admin)(|(objectClass=*"), "admin\\29\\28|\\28objectClass=\\2a");
});

Deno.test("Active Directory: nested groups by LDAP_MATCHING_RULE_IN_CHAIN, the DN escaped", () => {
  assertEquals(
    nestedGroupsFilter("CN=Smith\\, John (IT),OU=People,DC=corp,DC=example"),
    "(member:1.2.840.113556.1.4.1941:=CN=Smith\\5c, John \\28IT\\29,OU=People,DC=corp,DC=example)",
  );
});

Deno.test("Active Directory: objectGUID's bytes read as the GUID it is written as", () => {
  const bytes = Uint8Array.from({ length: 16 }, (_, i) => i);
  assertEquals(guidFromBytes(bytes), "03020100-0504-0706-0809-0a0b0c0d0e0f");
});
