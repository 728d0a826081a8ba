# Sourced by .ci/run: Emacs (emacs-nox) with eglot 1.9 (elpa-eglot), for the
# headless eglot tests (editors/emacs), which must not skip here.
if ! emacs --batch -q --eval "(require 'eglot)" >/dev/null 2>&1; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends emacs-nox elpa-eglot >/dev/null
fi
emacs --version | head -1
emacs --batch -q --eval '(progn (require (quote eglot)) (princ (format "eglot %s\n" (locate-library "eglot"))))'
export AGENTLS_REQUIRE_EGLOT=1
