// typescript-eslint's recommended type-aware rules for src, test, bench and scripts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'design-docs/**', 'data/**', '.tmp/**', 'test-output/**', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    // src/storage/ is the only code that talks to CouchDB (docs/architecture.md). dependency-cruiser
    // checks who imports nano; the client itself (storage/couch.ts `Couch`) is handed to the entry
    // layer, which passes it on to storage: this catches a call on it made anywhere else.
    files: ['src/**/*.ts'],
    ignores: ['src/storage/**'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: ':matches(MemberExpression[object.name=/^couch$/i], MemberExpression[object.property.name=/^couch$/i])[property.name=/^(use|db|info|request|relax|session|auth|uuids|updates|followUpdates|scope|config)$/]',
        message: 'Only src/storage/ calls the CouchDB client: add a storage function (e.g. couch.ts askStore, listDatabases) and call that.',
      }],
    },
  },
);
