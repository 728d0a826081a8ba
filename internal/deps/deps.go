//go:build deps

// Package deps keeps in go.mod the modules that code in progress is about to
// use; it is never built. Remove an import once real code uses its module.
package deps

import (
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/time/rate"
)
