// Patterns read URLs as the URL Standard parses them, and their public API takes and returns its
// types (`URLRecord` in `URLPattern.exec`), so this layer re-exports the one below it: a file
// that imports the patterns needs no second import (docs/architecture.md, "The core's layers").
@_exported public import URLStandard
