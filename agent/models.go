package agent

// The default Gemini models. They are the API's "-latest" aliases, which
// follow Google's current models: a default keeps working when Google
// retires a version (the 2.5 line, for one, answers new API keys 404 since
// mid-2026). The server, the terminal, the editor plugins and the docs all
// take their defaults from here.
const (
	// DefaultModel is the model of a run when no one chose one.
	DefaultModel = "gemini-flash-latest"
	// DefaultFastModel, DefaultStrongModel and DefaultClassifierModel are
	// the router's models (see [Router]).
	DefaultFastModel       = "gemini-flash-latest"
	DefaultStrongModel     = "gemini-pro-latest"
	DefaultClassifierModel = "gemini-flash-lite-latest"
)
