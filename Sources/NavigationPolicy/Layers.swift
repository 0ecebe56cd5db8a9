// The engine's public API is built from the layers below it (a `NavigationRequest` is checked
// with the URL Standard, `match.urlPatterns` are `URLPattern`s), and every app, the daemon and
// the tests wrote `import NavigationPolicy` before the core was split into layers (issue 39):
// re-exporting them keeps that one import enough (docs/architecture.md, "The core's layers").
@_exported public import PolicyPatterns
@_exported public import URLStandard
