// What a path says a file is for, where more than one part of deepwork ranks by it.

// A test, its fixtures or its data: by a folder (`tests/`, `__tests__/`, `spec/`, `test-data/`, `fixtures/`) or by its
// name (`app.test.ts`, `app_spec.rb`, `app_test.go`); TEST_FOLDER and TEST_NAME are its two halves, for a walk that
// tells a folder's once for all it holds.
export const TEST_PATH = /(^|\/)(tests?|__tests?__|spec|test-?data|fixtures?)\/|[._-](test|spec)\.[^/]+$|_test\.go$/i;
export const TEST_FOLDER = /^(tests?|__tests?__|spec|test-?data|fixtures?)$/i;
export const TEST_NAME = /[._-](test|spec)\.[^/]+$|_test\.go$/i;

// A folder of built output: `dist/`, or `build/` beside a `src/` (three.js's build/three.module.js): copies of the code
// made from its sources, which a published package or a repository that commits its build (a GitHub Action's bundle)
// holds beside them, and which sort before `src/`. FIND searches them after the rest and the map reads them only when
// there is nothing else (issue 30; reading/built.ts tells).
export const BUILT_FOLDER = /^dist$/i;
export const BUILT_BESIDE_SOURCES = /^build$/i;
