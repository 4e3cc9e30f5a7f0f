// ESLint for the gateway's sources (paths are relative to gateway/): ordinary TypeScript rules, and the web console's
// browser app with DOM globals and no way to write markup from a string. The layers' import direction is checked by
// dependency-cruiser (`npm run lint:layers`). Never n8n's rules: see ../eslint.typescript.mjs.
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { typescriptCode } from '../eslint.typescript.mjs';

const CONSOLE_CLIENT = ['src/console/client/**/*.tsx'];
const MARKUP = 'Render text with JSX: API values are text, never markup.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**'] },
  ...typescriptCode(['src/**/*.ts', 'src/**/*.mjs'], { ...globals.node, ...globals.jest }),
  ...typescriptCode(CONSOLE_CLIENT, globals.browser),
  {
    files: CONSOLE_CLIENT,
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: MARKUP },
        { property: 'outerHTML', message: MARKUP },
        { property: 'insertAdjacentHTML', message: MARKUP },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: MARKUP },
      ],
    },
  },
);
