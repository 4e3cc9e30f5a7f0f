// ESLint flat config.
//
// The n8n part below applies n8n's community-node rules to what the package ships: nodes/, credentials/ and
// package.json. It mirrors n8n's community package scanner (@n8n/scan-community-package): the
// `@n8n/eslint-plugin-community-nodes` recommended rules, `eslint-plugin-n8n-nodes-base` rules for package.json,
// credentials and nodes (with the same overrides), and no-console. The scanner ignores inline
// `eslint-disable` comments, so `npm run lint:nodes` runs with --no-inline-config.
//
// Gateway and test linting, when added, belong in their own blocks scoped to gateway/ and test/: the n8n rules
// must not reach them.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const N8N_SOURCES = ['nodes/**/*.ts', 'credentials/**/*.ts'];
const N8N_FILES = [...N8N_SOURCES, 'package.json'];

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
);
