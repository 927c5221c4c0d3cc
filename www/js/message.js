// The message area under the run bar: one message at a time, with the field it is about
// marked in the form ("Show the field" focuses it) and, for a failed run, a note saying
// what the failure means. Where the message came from decides what clears it again.

/** `modules[1].parameters.ck: ...` -> `modules[1].parameters.ck`; null when no path leads. */
export function pathOf(message) {
  const m = /^([A-Za-z_]\w*(?:\[\d+\])*(?:\.[A-Za-z_][\w()]*(?:\[\d+\])*)*): /.exec(message);
  return m ? m[1] : null;
}

export class MessageArea {
  /**
   * @param {object} els the elements: box (#message), text, note, goto (the "Show the field" button)
   * @param {object} editor the scenario editor (markError, clearMarks, find)
   */
  constructor(els, editor) {
    this.els = els;
    this.editor = editor;
    this.source = null; // 'validation' | 'run' | 'form' | null
    this.path = null;
    els.goto.addEventListener('click', () => {
      const target = this.path ? editor.find(this.path) : null;
      if (!target) return;
      target.scrollIntoView({ block: 'center' });
      target.focus();
    });
  }

  /**
   * Shows `text`. `kind` is the error's kind from the worker ('scenario', 'capability',
   * 'runtime', 'internal'; the styles tell them apart), `note` a line under the text.
   */
  show(text, { path = pathOf(text), source = 'run', kind = 'scenario', note = '' } = {}) {
    const { box, text: textEl, note: noteEl, goto } = this.els;
    box.hidden = false;
    box.dataset.kind = kind;
    textEl.textContent = text;
    noteEl.textContent = note;
    noteEl.hidden = !note;
    this.source = source;
    this.path = path;
    const target = path ? this.editor.markError(path, text) : null;
    goto.hidden = !target;
  }

  clear() {
    this.els.box.hidden = true;
    this.els.text.textContent = '';
    this.els.note.textContent = '';
    this.source = null;
    this.path = null;
    this.editor.clearMarks();
  }
}
