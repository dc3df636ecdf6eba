// The few browser-extension APIs this extension uses, typed as far as it relies on them (no @types package for one
// folder of plain scripts). Chromium's names; Firefox gives the same under `chrome` too.

declare namespace chrome {
  namespace runtime {
    type MessageSender = { tab?: tabs.Tab; frameId?: number; url?: string; id?: string };
    type Port = {
      name: string;
      postMessage(message: unknown): void;
      disconnect(): void;
      onMessage: { addListener(listener: (message: unknown) => void): void };
      onDisconnect: { addListener(listener: () => void): void };
      sender?: MessageSender;
    };
    const id: string;
    function getManifest(): { version: string };
    function getURL(path: string): string;
    function sendMessage(message: unknown): Promise<unknown>;
    const onMessage: {
      addListener(
        listener: (message: unknown, sender: MessageSender, respond: (answer: unknown) => void) => boolean | undefined,
      ): void;
    };
    const onConnect: { addListener(listener: (port: Port) => void): void };
    const onStartup: { addListener(listener: () => void): void };
    const onInstalled: { addListener(listener: () => void): void };
  }
  namespace tabs {
    type Tab = { id?: number; url?: string; title?: string; status?: string; windowId: number };
    function query(query: Record<string, unknown>): Promise<Tab[]>;
    function get(id: number): Promise<Tab>;
    function update(id: number, change: { url?: string; active?: boolean }): Promise<Tab>;
    function connect(id: number, options: { name: string }): runtime.Port;
    type UpdateListener = (id: number, change: { status?: string; url?: string }) => void;
    const onUpdated: { addListener(listener: UpdateListener): void; removeListener(listener: UpdateListener): void };
    const onRemoved: { addListener(listener: (id: number) => void): void };
  }
  namespace scripting {
    function executeScript(options: { target: { tabId: number }; files: string[] }): Promise<unknown[]>;
  }
  namespace storage {
    const local: {
      get(key: string): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
    };
  }
  namespace windows {
    function create(options: {
      url: string;
      type: 'popup';
      width: number;
      height: number;
      focused?: boolean;
    }): Promise<{
      id?: number;
    }>;
  }
}
