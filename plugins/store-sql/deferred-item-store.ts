import type { ItemStore } from "../../kernel/ports/item-store.js";

/**
 * An item store usable at once whose every call waits for the real one (connected and
 * migrated), as `deferredRunStore` does for the run store: the plugin's `item-store`
 * port, built synchronously. `init()` rejects when opening failed (a host awaits it at start).
 */
export function deferredItemStore(ready: Promise<ItemStore>): ItemStore & { init(): Promise<void> } {
  ready.catch(() => undefined);
  return {
    init: async () => {
      await ready;
    },
    close: async () => {
      const store = await ready.catch(() => undefined);
      await store?.close?.();
    },
    putItem: async (...args) => (await ready).putItem(...args),
    getItem: async (...args) => (await ready).getItem(...args),
    deleteItem: async (...args) => (await ready).deleteItem(...args),
    searchItems: async (...args) => (await ready).searchItems(...args),
    listNamespaces: async (...args) => (await ready).listNamespaces(...args),
    sweepExpired: async (...args) => (await ready).sweepExpired(...args),
  };
}
