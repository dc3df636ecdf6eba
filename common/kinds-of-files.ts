// What a path says a file is for, where more than one part of deepwork ranks by it.

// A test, its fixtures or its data: by a folder (`tests/`, `__tests__/`, `spec/`, `test-data/`, `fixtures/`) or by its
// name (`app.test.ts`, `app_spec.rb`, `app_test.go`).
export const TEST_PATH = /(^|\/)(tests?|__tests__|spec|test-?data|fixtures?)\/|[._-](test|spec)\.[^/]+$|_test\.go$/i;
