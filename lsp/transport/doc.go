// Package transport is the hardened wire under the language server: a frame
// reader that survives malformed input, the protocol codec, and the
// middleware every handler chain of agentls wants — parameter errors
// answered as such, panics turned into errors, failed notifications kept
// from closing the connection, and requests released to run concurrently
// up to a bound, so a client that stops reading cannot grow the server
// without limit.
package transport
