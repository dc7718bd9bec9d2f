// The browser client's lint: ESLint's recommended rules for ES modules in a browser, with strict equality and
// no reassignable binding that is never reassigned. `./dev test` runs it on web/.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["web/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: { eqeqeq: "error", "prefer-const": "error", "no-var": "error" },
  },
];
