// Package neovim holds agentls.nvim, the Neovim plugin of agentls (Lua, under
// lua/agentls; :help agentls is doc/agentls.txt), and its tests: they drive
// real Neovims (headless, and on a screen in a pseudo-terminal), with the
// plugin and without it, against the agentls binary and the fake Gemini
// server (agent/gemini/geminitest). See README.md.
package neovim
