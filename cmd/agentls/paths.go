package main

import (
	"path/filepath"
	"runtime"
)

// userConfigDir is agentls's folder in the user's configuration directory
// ($XDG_CONFIG_HOME/agentls, ~/.config/agentls; %AppData%\agentls on
// Windows, ~/Library/Application Support/agentls on macOS), read from e
// rather than the process so that tests stay out of the real one. "" when
// there is none.
func userConfigDir(e env) string {
	if d := e.get("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentls")
	}
	switch runtime.GOOS {
	case "windows":
		if d := e.get("AppData"); d != "" {
			return filepath.Join(d, "agentls")
		}
		return ""
	case "darwin":
		if h := e.get("HOME"); filepath.IsAbs(h) {
			return filepath.Join(h, "Library", "Application Support", "agentls")
		}
		return ""
	}
	if h := e.get("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "agentls")
	}
	return ""
}

// userPolicyFile is the user's policy file, beside which the policy
// engine keeps the trusted folders; "" when there is no config folder.
func userPolicyFile(e env) string {
	if d := userConfigDir(e); d != "" {
		return filepath.Join(d, "policy.toml")
	}
	return ""
}
