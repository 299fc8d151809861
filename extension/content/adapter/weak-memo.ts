// One value per object, computed on first use and kept as long as the object lives: the adapter derives selector
// lists and flags from its selector table's arrays, which live as long as the adapter, on every scan.

/** `derive`, memoized per key object (a WeakMap, so a dropped table takes its derived values with it). */
export function weakMemo<K extends object, V>(derive: (key: K) => V): (key: K) => V {
  const values = new WeakMap<K, V>();
  return (key) => {
    // One lookup on the hot path (joinedChain runs on every ancestor of a walk); `has` only for an undefined value.
    const kept = values.get(key);
    if (kept !== undefined || values.has(key)) return kept as V;
    const value = derive(key);
    values.set(key, value);
    return value;
  };
}
