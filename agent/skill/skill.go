// Package skill finds agent skills: folders holding a SKILL.md whose YAML
// front matter names and describes a procedure, and whose body is the
// procedure itself, with the folder's other files as its references and
// scripts (the Agent Skills convention, as Gemini CLI reads it).
//
// A run's system prompt names each skill and says what it is for; the body
// is loaded only when the model activates the skill (progressive
// disclosure). A skill is read where its files really lead: a skill folder,
// SKILL.md or listed file that a symbolic link takes out of the folder it
// was found in is left out.
package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Dirs are the folders, relative to a workspace folder, that hold its
// skills, in order of precedence.
var Dirs = []string{".agentls/skills", ".gemini/skills", ".agents/skills"}

// Limits of what a skill may hold.
const (
	maxSkillBytes   = 256 << 10 // SKILL.md
	maxDescription  = 1024      // characters, as the convention says
	maxListedFiles  = 100       // files listed on activation
	maxListingDepth = 4         // folders below the skill's
)

// A Skill is a skill as the system prompt names it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Dir is the skill's folder and Path its SKILL.md, both real paths.
	Dir  string `json:"dir"`
	Path string `json:"path"`
	// Source says where it was found: "user", or the workspace folder.
	Source string `json:"source"`
}

// A Place is a folder searched for skills: each of its subfolders with a
// SKILL.md is one.
type Place struct {
	Dir string
	// Source names the place for the user: "user", or the workspace
	// folder.
	Source string
	// Within is the folder nothing of the place's skills may lead out of
	// (the workspace folder, the user's config folder).
	Within string
}

// Places are the places of a workspace folder, in order of precedence.
func Places(root string) []Place {
	var ps []Place
	for _, d := range Dirs {
		ps = append(ps, Place{Dir: filepath.Join(root, filepath.FromSlash(d)), Source: root, Within: root})
	}
	return ps
}

// UserPlace is the place of the user's own skills, <userDir>/skills.
func UserPlace(userDir string) Place {
	return Place{Dir: filepath.Join(userDir, "skills"), Source: "user", Within: userDir}
}

// Find returns the skills of the places, sorted by name. Of two skills of
// one name, the one of the earlier place wins; the other is reported. A
// skill that does not parse, or leads out of its place, is reported and
// left out. A missing place is no error.
func Find(places []Place) ([]Skill, []error) {
	var out []Skill
	var errs []error
	for _, pl := range places {
		entries, err := os.ReadDir(pl.Dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			s, err := load(pl, e.Name())
			if errors.Is(err, errNoSkill) {
				continue
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if i := slices.IndexFunc(out, func(o Skill) bool { return o.Name == s.Name }); i >= 0 {
				errs = append(errs, fmt.Errorf("%s: skill %q left out: %s has a skill of that name, which wins", s.Path, s.Name, out[i].Path))
				continue
			}
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out, errs
}

// errNoSkill reports a folder entry that is not a skill (no SKILL.md).
var errNoSkill = errors.New("not a skill")

// load reads the skill in the subfolder name of pl.
func load(pl Place, name string) (Skill, error) {
	within, err := filepath.EvalSymlinks(pl.Within)
	if err != nil {
		return Skill{}, err
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(pl.Dir, name))
	if err != nil {
		return Skill{}, errNoSkill
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Skill{}, errNoSkill
	}
	shown := filepath.Join(pl.Dir, name, FileName)
	if !within0(dir, within) {
		return Skill{}, fmt.Errorf("%s: left out: the skill's folder leads to %s, outside %s", shown, dir, pl.Within)
	}
	path, err := filepath.EvalSymlinks(filepath.Join(dir, FileName))
	if err != nil {
		return Skill{}, errNoSkill
	}
	if !within0(path, dir) {
		return Skill{}, fmt.Errorf("%s: left out: it leads to %s, outside the skill's folder", shown, path)
	}
	src, err := readCapped(path)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", shown, err)
	}
	fm, _, err := Parse(src)
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", shown, err)
	}
	if fm.Name != filepath.Base(filepath.Join(pl.Dir, name)) {
		return Skill{}, fmt.Errorf("%s: name %q must be the name of the skill's folder, %q", shown, fm.Name, name)
	}
	return Skill{Name: fm.Name, Description: fm.Description, Dir: dir, Path: path, Source: pl.Source}, nil
}

// readCapped reads a SKILL.md, refusing one past maxSkillBytes.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, maxSkillBytes+1)); err != nil {
		return nil, err
	}
	if b.Len() > maxSkillBytes {
		return nil, fmt.Errorf("larger than %d KB", maxSkillBytes>>10)
	}
	return b.Bytes(), nil
}

// FrontMatter is a SKILL.md's header. Fields of the convention agentls
// does not use (license, compatibility, metadata, allowed-tools) are
// allowed and ignored.
type FrontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

var validName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Parse reads a SKILL.md: YAML front matter between "---" lines with a
// name (1 to 64 lower case letters, digits and single hyphens) and a
// description (what the skill does and when to use it, at most 1024
// characters), then the body, which must not be empty.
func Parse(src []byte) (FrontMatter, string, error) {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	rest, ok := bytes.CutPrefix(src, []byte("---\n"))
	if !ok {
		return FrontMatter{}, "", errors.New("no front matter: the file must start with a line ---")
	}
	head, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		if h, found := bytes.CutSuffix(rest, []byte("\n---")); found {
			head, body, ok = h, nil, true
		}
	}
	if !ok {
		return FrontMatter{}, "", errors.New("the front matter has no closing line ---")
	}
	var fm FrontMatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return FrontMatter{}, "", fmt.Errorf("front matter: %w", err)
	}
	fm.Description = strings.TrimSpace(fm.Description)
	switch {
	case len(fm.Name) > 64 || !validName.MatchString(fm.Name):
		return FrontMatter{}, "", fmt.Errorf("name %q must be 1 to 64 lower case letters, digits and single hyphens", fm.Name)
	case fm.Description == "":
		return FrontMatter{}, "", errors.New("description is required: the model decides from it when to use the skill")
	case len([]rune(fm.Description)) > maxDescription:
		return FrontMatter{}, "", fmt.Errorf("description is longer than %d characters", maxDescription)
	case strings.ContainsFunc(fm.Description, isControl):
		return FrontMatter{}, "", errors.New("description holds control characters")
	case strings.TrimSpace(string(body)) == "":
		return FrontMatter{}, "", errors.New("the instructions after the front matter are empty")
	}
	return fm, strings.TrimSpace(string(body)), nil
}

// isControl reports characters a one-line description must not hold:
// control characters (a newline folds into a space first) and the
// invisible ones that reorder text.
func isControl(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// Body reads the skill's instructions again (the file may have changed
// since it was found), and lists the skill's other files, relative to its
// folder; total counts them all when the list is cut.
func (s Skill) Body() (body string, files []string, total int, err error) {
	path, err := filepath.EvalSymlinks(filepath.Join(s.Dir, FileName))
	if err != nil {
		return "", nil, 0, err
	}
	if !within0(path, s.Dir) {
		return "", nil, 0, fmt.Errorf("%s now leads to %s, outside the skill's folder", s.Path, path)
	}
	src, err := readCapped(path)
	if err != nil {
		return "", nil, 0, err
	}
	fm, body, err := Parse(src)
	if err != nil {
		return "", nil, 0, err
	}
	if fm.Name != s.Name {
		return "", nil, 0, fmt.Errorf("%s now names the skill %q", s.Path, fm.Name)
	}
	files, total = s.files()
	return body, files, total, nil
}

// files lists the skill's files besides SKILL.md, sorted, at most
// maxListedFiles; a file whose link leads out of the skill's folder is left
// out, as are hidden files and folders.
func (s Skill) files() ([]string, int) {
	var out []string
	total := 0
	filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == s.Dir {
			return nil
		}
		rel, _ := filepath.Rel(s.Dir, p)
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(rel, string(filepath.Separator)) >= maxListingDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == FileName {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(p)
			if err != nil || !within0(real, s.Dir) {
				return nil
			}
		}
		total++
		if len(out) < maxListedFiles {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, total
}

// Contains reports whether the real path p is one of the skill's files: a
// file in its folder whose links lead nowhere else.
func (s Skill) Contains(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	return err == nil && real != s.Dir && within0(real, s.Dir)
}

// within0 reports whether the clean path p is dir or lies below it.
func within0(p, dir string) bool {
	if p == dir {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
