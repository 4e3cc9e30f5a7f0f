// ESLint for the tests (paths are relative to test/): ordinary TypeScript rules with Node's and jest's globals, never
// n8n's (see ../eslint.typescript.mjs). `npm run lint:tests` type-checks them as well.
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { typescriptCode } from '../eslint.typescript.mjs';

export default tseslint.config(...typescriptCode(['**/*.ts', '**/*.mjs'], { ...globals.node, ...globals.jest }));
