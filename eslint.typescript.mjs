// The ordinary TypeScript rules the gateway and the tests share; gateway/eslint.config.mjs and test/eslint.config.mjs
// build on it. The root eslint.config.mjs is n8n's default for community packages (`n8n-node lint` in strict mode
// refuses any other), so its n8n rules (no `process`, no timers, an import allow-list) reach only the n8n package:
// ESLint looks up the config nearest to each file (the flag ESLint 10 makes the default), so gateway/ and test/ files
// get their own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Read once while this module loads, not from an eslint.config file: typescript-eslint records the folder of every
// eslint.config file on the stack when its `configs` are read, and with two of them in one run it refuses to guess a
// tsconfigRootDir anywhere, which silently breaks n8n's rules that parse the credentials named in package.json.
const RECOMMENDED = [js.configs.recommended, ...tseslint.configs.recommended];

/** Recommended JavaScript and TypeScript rules for the given files, with the given globals. */
export function typescriptCode(files, globals) {
  const scoped = (block) => ({ ...block, files });
  return [
    ...RECOMMENDED.map(scoped),
    scoped({
      languageOptions: { globals },
      // `npm run lint` runs these through `n8n-node lint`, which allows warnings: make a stale directive an error.
      linterOptions: { reportUnusedDisableDirectives: 'error' },
      rules: {
        '@typescript-eslint/no-explicit-any': 'off',
        '@typescript-eslint/no-unused-vars': [
          'error',
          { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
        ],
      },
    }),
  ];
}
