// ESLint flat config.
//
// The n8n part below applies n8n's community-node rules to what the package ships: nodes/, credentials/ and
// package.json. It mirrors n8n's community package scanner (@n8n/scan-community-package): the
// `@n8n/eslint-plugin-community-nodes` recommended rules, `eslint-plugin-n8n-nodes-base` rules for package.json,
// credentials and nodes (with the same overrides), and no-console. The scanner ignores inline
// `eslint-disable` comments, so `npm run lint:nodes` runs with --no-inline-config.
//
// The gateway and the tests get ordinary TypeScript rules in their own block: the n8n rules never reach them.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeGlobals = { ...globals.node, ...globals.jest };

const N8N_SOURCES = ['nodes/**/*.ts', 'credentials/**/*.ts'];
const N8N_FILES = [...N8N_SOURCES, 'package.json'];
const CODE = ['gateway/src/**/*.ts', 'test/**/*.ts', 'test/**/*.mjs', 'gateway/src/**/*.mjs'];
// The web console's browser app: DOM globals instead of Node's, and no way to write markup from a string.
const CONSOLE_CLIENT = ['gateway/src/console/client/**/*.tsx'];

/** Restricts a config block to the given files. */
const scoped = (files, block) => ({ ...block, files });

export default tseslint.config(
	{ ignores: ['**/dist/**', '**/node_modules/**', '.e2e/**', 'coverage/**', 'data/**'] },

	// ---- n8n community package: nodes/, credentials/, package.json -------------------------------------------
	{
		files: N8N_FILES,
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
	scoped(N8N_SOURCES, js.configs.recommended),
	...tseslint.configs.recommended.map((block) => scoped(N8N_SOURCES, block)),
	scoped(N8N_FILES, {
		plugins: n8nCommunityNodesPlugin.configs.recommended.plugins,
		rules: { ...n8nCommunityNodesPlugin.configs.recommended.rules, 'no-console': 'error' },
	}),
	{ files: N8N_FILES, plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{ files: ['package.json'], rules: { ...n8nNodesBase.configs.community.rules } },
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Same overrides as n8n's scanner: slugs are not valid for community nodes, and
			// @n8n/community-nodes/credential-password-field is the more accurate password check.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// Same overrides as n8n's scanner: inputs/outputs use NodeConnectionTypes, and maxValue is allowed.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},

	// ---- gateway and tests: plain TypeScript rules ------------------------------------------------------------
	...[js.configs.recommended, ...tseslint.configs.recommended].map((block) => scoped(CODE, block)),
	scoped(CODE, {
		languageOptions: { globals: { ...nodeGlobals } },
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
		},
	}),

	// ---- web console browser app --------------------------------------------------------------------------------
	...[js.configs.recommended, ...tseslint.configs.recommended].map((block) => scoped(CONSOLE_CLIENT, block)),
	scoped(CONSOLE_CLIENT, {
		languageOptions: { globals: { ...globals.browser } },
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
			'no-restricted-properties': ['error',
				{ property: 'innerHTML', message: 'Render text with JSX: API values are text, never markup.' },
				{ property: 'outerHTML', message: 'Render text with JSX: API values are text, never markup.' },
				{ property: 'insertAdjacentHTML', message: 'Render text with JSX: API values are text, never markup.' }],
			'no-restricted-syntax': ['error', { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render text with JSX: API values are text, never markup.' }],
		},
	}),
);
