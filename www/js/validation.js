// Asks the core whether the scenario is valid, 250 ms after the last edit, and shows its
// message (or clears an earlier one). Only the answer to the latest question counts.

import { pathOf } from './message.js';

export class Validator {
  constructor(page) {
    this.page = page;
    this.latest = 0;
    this.timer = 0;
  }

  /** Validates now; `source` 'json' prefixes messages that name no field. */
  async now(text, source = 'form') {
    clearTimeout(this.timer);
    const ask = ++this.latest;
    const message = await this.page.client.validate(text);
    if (ask !== this.latest) return;
    const { messages, store } = this.page;
    // The diagram draws a message about a connection on its arrow.
    store.set({ validation: message });
    if (message) {
      const shown = source === 'json' && !pathOf(message) ? `Scenario JSON: ${message}` : message;
      messages.show(shown, { source: 'validation' });
    } else if (messages.source === 'validation') {
      messages.clear();
    }
  }

  /** Validates the store's scenario (or `text`) after a pause in editing. */
  soon(source = 'form', text = null) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.now(text ?? JSON.stringify(this.page.store.state.scenario), source), 250);
  }

  /** A run is starting: its own errors replace any pending validation. */
  stop() {
    clearTimeout(this.timer);
    this.latest += 1;
  }
}
