# Sourced by .ci/run: Debian 12's Neovim 0.7.2 (apt) and a current one,
# Debian unstable's 0.12.x, unpacked under $AGENTLS_CI_DIR without
# installing it system-wide (apt downloads the packages from the mirror
# the machine already uses; its own dynamic loader and libraries run it).
# Exports AGENTLS_NVIM: the Neovims the tests run on.
ci_dir=${AGENTLS_CI_DIR:-/tmp/agentls-ci}
if ! command -v nvim >/dev/null; then
	apt-get update -qq
	apt-get install -y -qq neovim >/dev/null
fi
nvim_current() {
	local d=$1 r mirror o
	if [ -x "$d/bin/nvim" ] && "$d/bin/nvim" --version >/dev/null 2>&1; then return; fi
	mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
	[ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
	[ -n "$mirror" ] || { echo "nvim.sh: no Debian mirror in the apt sources" >&2; return 1; }
	mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" "$d/debs" "$d/root" "$d/bin"
	echo "deb $mirror sid main" >"$d/apt/sources.list"
	o="-o Dir::Etc::sourcelist=$d/apt/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$d/apt/lists -o Dir::Cache=$d/apt/cache -o Dir::State::status=/var/lib/dpkg/status -o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	apt-get $o update >/dev/null
	# shellcheck disable=SC2086
	(cd "$d/debs" && apt-get $o download neovim neovim-runtime libc6 libluajit-5.1-2 libluajit-5.1-common \
		libtree-sitter0.26 libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv libgcc-s1 >/dev/null)
	for f in "$d"/debs/*.deb; do dpkg-deb -x "$f" "$d/root"; done
	r="$d/root"
	cat >"$d/bin/nvim" <<EOW
#!/bin/sh
export VIMRUNTIME=$r/usr/share/nvim/runtime
exec $r/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path $r/usr/lib/x86_64-linux-gnu $r/usr/bin/nvim "\$@"
EOW
	chmod +x "$d/bin/nvim"
}
nvim_current "$ci_dir/nvim-current"
export AGENTLS_NVIM="$(command -v nvim) $ci_dir/nvim-current/bin/nvim"
export AGENTLS_REQUIRE_NVIM=1
for n in $AGENTLS_NVIM; do "$n" --version | head -1; done
