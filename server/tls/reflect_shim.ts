/**
 * @peculiar/x509 pulls in tsyringe, which insists on a `Reflect.getMetadata` polyfill at load time
 * (it is meant for decorators we never use). This is the minimal metadata store it needs, so the
 * `reflect-metadata` package does not have to be added. Imported before the library, see x509.ts.
 */
const store = new WeakMap<object, Map<unknown, unknown>>();
const R = Reflect as unknown as Record<string, unknown>;

function getMetadata(key: unknown, target: object): unknown {
  for (let o: object | null = target; o; o = Object.getPrototypeOf(o)) {
    const m = store.get(o);
    if (m?.has(key)) return m.get(key);
  }
  return undefined;
}
function defineMetadata(key: unknown, value: unknown, target: object): void {
  let m = store.get(target);
  if (!m) store.set(target, m = new Map());
  m.set(key, value);
}

if (typeof R.getMetadata !== "function") {
  R.getMetadata = getMetadata;
  R.defineMetadata = defineMetadata;
  R.getOwnMetadata = (key: unknown, target: object) => store.get(target)?.get(key);
  R.hasMetadata = (key: unknown, target: object) => getMetadata(key, target) !== undefined;
  R.metadata = (key: unknown, value: unknown) => (target: object) =>
    defineMetadata(key, value, target);
}
