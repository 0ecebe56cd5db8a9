// The authoring tools take and return the engine's types (`CompiledPolicy`, `Decision`,
// `NavigationRequest`), so this layer re-exports the engine: the daemon's and the command line's
// files that analyse, lint or diff a policy import this module alone (docs/architecture.md,
// "The core's layers").
@_exported public import NavigationPolicy
