package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// accountFiles are the files of an image's accounts, as lines.
var accountFiles = []string{"passwd", "group", "shadow", "gshadow"}

// accounts are the image's /etc/passwd, group, shadow and gshadow.
type accounts struct {
	lines   map[string][]string
	changed bool
	// homes are the home folders of the accounts dropped.
	homes []string
}

func readAccounts(root string) (*accounts, error) {
	a := &accounts{lines: map[string][]string{}}
	for _, f := range accountFiles {
		data, err := os.ReadFile(filepath.Join(root, "etc", f))
		if err != nil {
			return nil, err
		}
		a.lines[f] = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	return a, nil
}

// field is field i of the line of name in file f, or "".
func (a *accounts) field(f, name string, i int) string {
	for _, l := range a.lines[f] {
		if fs := strings.Split(l, ":"); fs[0] == name && len(fs) > i {
			return fs[i]
		}
	}
	return ""
}

func (a *accounts) has(name string) bool { return a.field("passwd", name, 0) == name }

// drop removes user name, its group of the same name, and the user from
// every group's members.
func (a *accounts) drop(name string) error {
	if !a.has(name) {
		return fmt.Errorf("-drop-user %s: no such account", name)
	}
	a.homes = append(a.homes, a.field("passwd", name, 5))
	for _, f := range accountFiles {
		var keep []string
		for _, l := range a.lines[f] {
			fs := strings.Split(l, ":")
			if fs[0] == name {
				continue
			}
			if (f == "group" || f == "gshadow") && len(fs) > 0 {
				last := len(fs) - 1
				members := strings.Split(fs[last], ",")
				fs[last] = strings.Join(without(members, name), ",")
			}
			keep = append(keep, strings.Join(fs, ":"))
		}
		a.lines[f] = keep
	}
	a.changed = true
	return nil
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// add adds user name as Debian's useradd NAME does with its defaults
// (login.defs: UID_MIN and GID_MIN 1000, USERGROUPS_ENAB yes;
// /etc/default/useradd: SHELL /bin/sh; no home folder made): the next
// free uid and gid from 1000, a group of its name, a locked password.
// The date of its password is root's, so that the layer is the same
// each time.
func (a *accounts) add(name string) error {
	if a.has(name) || a.field("group", name, 0) == name {
		return fmt.Errorf("useradd %s: the account exists", name)
	}
	uid, gid := a.next("passwd", 2), a.next("group", 2)
	a.lines["passwd"] = append(a.lines["passwd"], fmt.Sprintf("%s:x:%d:%d::/home/%s:/bin/sh", name, uid, gid, name))
	a.lines["group"] = append(a.lines["group"], fmt.Sprintf("%s:x:%d:", name, gid))
	a.lines["shadow"] = append(a.lines["shadow"], fmt.Sprintf("%s:!:%s:0:99999:7:::", name, a.field("shadow", "root", 2)))
	a.lines["gshadow"] = append(a.lines["gshadow"], name+":!::")
	a.changed = true
	return nil
}

// next is one more than the highest id from 1000 to 59999 in field i of
// file f, or 1000: useradd's choice.
func (a *accounts) next(f string, i int) int {
	id := 1000
	for _, l := range a.lines[f] {
		fs := strings.Split(l, ":")
		if len(fs) <= i {
			continue
		}
		if n, err := strconv.Atoi(fs[i]); err == nil && n >= id && n < 60000 {
			id = n + 1
		}
	}
	return id
}

// write puts the account files into the layer if they changed, with the
// modes and owners they have in the root filesystem.
func (a *accounts) write(root, layer string) error {
	if !a.changed {
		return nil
	}
	if err := mkdirs(layer, "/etc"); err != nil {
		return err
	}
	for _, f := range accountFiles {
		fi, err := os.Stat(filepath.Join(root, "etc", f))
		if err != nil {
			return err
		}
		file := filepath.Join(layer, "etc", f)
		if err := os.WriteFile(file, []byte(strings.Join(a.lines[f], "\n")+"\n"), fi.Mode().Perm()); err != nil {
			return err
		}
		if err := os.Chmod(file, fi.Mode().Perm()); err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
			if err := os.Lchown(file, int(st.Uid), int(st.Gid)); err != nil {
				return err
			}
		}
	}
	return nil
}
