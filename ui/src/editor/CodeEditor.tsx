import { closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { lintGutter, lintKeymap, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, StateEffect, StateField, type Extension } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  type DecorationSet,
} from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { Box, useTheme } from '@mui/material';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { schemaCompletion, schemaHover, type AssistSource } from './assist';

export interface EditorProblem {
  /** 1-based line. */
  line: number;
  message: string;
  path?: string;
}

export interface CodeEditorHandle {
  /** Replaces the whole text (an undoable change). */
  setText(text: string): void;
  /** Selects a line, scrolls it into view and focuses the editor. */
  goToLine(line: number): void;
}

export interface CodeEditorProps {
  initial: string;
  format: 'yaml' | 'json';
  onChange(text: string): void;
  problems: EditorProblem[];
  /** JSON Schema completion and hover; absent until it is loaded. */
  assist?: Omit<AssistSource, 'format'> | undefined;
  label: string;
}

const darkHighlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: '#7ec3ff' },
  { tag: [tags.string, tags.special(tags.string)], color: '#a5d6a7' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: '#ffcc80' },
  { tag: [tags.keyword, tags.typeName], color: '#ce93d8' },
  { tag: [tags.comment, tags.meta], color: '#9e9e9e', fontStyle: 'italic' },
  { tag: [tags.punctuation, tags.separator, tags.bracket], color: '#b0bec5' },
]);

/** Lines the server's errors point at, as line decorations (also `data-error-line` for tests and styling). */
const setErrorLines = StateEffect.define<number[]>();
const errorLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setErrorLines)) continue;
      const lines = [...new Set(e.value)].filter((l) => l >= 1 && l <= tr.state.doc.lines).sort((a, b) => a - b);
      deco = Decoration.set(
        lines.map((l) =>
          Decoration.line({ class: 'cm-error-line', attributes: { 'data-error-line': String(l) } }).range(tr.state.doc.line(l).from),
        ),
      );
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/**
 * The editable text's attributes: its name, and an explicit tab stop (a contenteditable is one
 * already; the attribute says so to checkers such as axe-core, which otherwise take the scrolling
 * box around it for a region no keyboard can reach).
 */
const contentAttributes = (label: string) => ({ 'aria-label': label, 'aria-multiline': 'true', tabindex: '0' });

/**
 * A CodeMirror 6 editor for YAML or JSON: highlighting, line numbers, folding, bracket matching
 * and closing, search, undo; completion and hover from the kind's JSON Schema; the server's
 * errors as lint markers and marked lines, each on the line its path points to.
 */
export const CodeEditor = forwardRef<CodeEditorHandle, CodeEditorProps>(function CodeEditor(
  { initial, format, onChange, problems, assist, label },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>();
  const language = useRef(new Compartment());
  const look = useRef(new Compartment());
  const attributes = useRef(new Compartment());
  const assistRef = useRef<AssistSource>();
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  assistRef.current = assist ? { ...assist, format } : undefined;
  const theme = useTheme();
  const dark = theme.palette.mode === 'dark';

  const lookOf = (isDark: boolean): Extension => [
    EditorView.theme(
      {
        '&': { height: '100%', fontSize: '13px', backgroundColor: theme.palette.background.paper, color: theme.palette.text.primary },
        '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', lineHeight: '1.55' },
        '.cm-gutters': {
          backgroundColor: theme.palette.background.default,
          color: theme.palette.text.secondary,
          borderRight: `1px solid ${theme.palette.divider}`,
        },
        '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: isDark ? 'rgba(255,255,255,0.05)' : 'rgba(0,0,0,0.04)' },
        '.cm-error-line': { backgroundColor: isDark ? 'rgba(244,67,54,0.22)' : 'rgba(244,67,54,0.14)' },
        '&.cm-focused .cm-cursor': { borderLeftColor: theme.palette.text.primary },
        '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': {
          backgroundColor: isDark ? 'rgba(144,202,249,0.3)' : 'rgba(25,118,210,0.2)',
        },
        '.cm-tooltip': {
          backgroundColor: theme.palette.background.paper,
          color: theme.palette.text.primary,
          border: `1px solid ${theme.palette.divider}`,
        },
        '.cm-schema-hover': {
          padding: '6px 8px',
          maxWidth: '420px',
          whiteSpace: 'pre-wrap',
          fontFamily: String(theme.typography.fontFamily),
        },
      },
      { dark: isDark },
    ),
    syntaxHighlighting(isDark ? darkHighlight : defaultHighlightStyle),
  ];

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          foldGutter(),
          lintGutter(),
          history(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          errorLines,
          schemaCompletion(() => assistRef.current),
          schemaHover(() => assistRef.current),
          keymap.of([
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...searchKeymap,
            ...historyKeymap,
            ...foldKeymap,
            ...completionKeymap,
            ...lintKeymap,
          ]),
          language.current.of(format === 'json' ? json() : yaml()),
          look.current.of(lookOf(dark)),
          attributes.current.of(EditorView.contentAttributes.of(contentAttributes(label))),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChangeRef.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // the editor is created once; later props go through compartments and effects
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(format === 'json' ? json() : yaml()) });
  }, [format]);
  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(EditorView.contentAttributes.of(contentAttributes(label))) });
  }, [label]);
  useEffect(() => {
    view.current?.dispatch({ effects: look.current.reconfigure(lookOf(dark)) });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [dark, theme]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const doc = v.state.doc;
    const diagnostics: Diagnostic[] = problems
      .filter((p) => p.line >= 1 && p.line <= doc.lines)
      .map((p) => {
        const l = doc.line(p.line);
        return {
          from: l.from + (l.text.length - l.text.trimStart().length),
          to: l.to,
          severity: 'error',
          message: p.path ? `${p.path}: ${p.message}` : p.message,
        };
      });
    v.dispatch(setDiagnostics(v.state, diagnostics), { effects: setErrorLines.of(problems.map((p) => p.line)) });
  }, [problems]);

  useImperativeHandle(ref, () => ({
    setText(text: string) {
      const v = view.current;
      if (v && v.state.doc.toString() !== text) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
    },
    goToLine(line: number) {
      const v = view.current;
      if (!v || line < 1 || line > v.state.doc.lines) return;
      const l = v.state.doc.line(line);
      v.dispatch({ selection: { anchor: l.from, head: l.to }, effects: EditorView.scrollIntoView(l.from, { y: 'center' }) });
      v.focus();
    },
  }));

  return (
    <Box
      ref={host}
      data-testid="code-editor"
      sx={{
        height: '100%',
        '& .cm-editor': { height: '100%' },
        '& .cm-editor.cm-focused': { outline: `2px solid ${theme.palette.primary.main}` },
      }}
    />
  );
});
