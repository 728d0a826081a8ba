// Package neovim holds agentls.nvim, the Neovim plugin of agentls (Lua, under
// lua/agentls), and its tests: nvim_test.go drives a real headless Neovim
// with the plugin against the agentls binary and the fake Gemini server
// (agent/gemini/geminitest). See README.md.
package neovim
