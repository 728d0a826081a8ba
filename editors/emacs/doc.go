// Package emacs holds the test of agentls in Emacs eglot without any
// plugin, configured as docs/editors.md says: eglot_test.go runs Emacs
// headless (eglot-test.el) against the agentls binary and the fake Gemini
// server (agent/gemini/geminitest), and checks what the model was told.
package emacs
