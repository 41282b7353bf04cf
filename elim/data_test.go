package elim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// findData locates ../shared/data/uai relative to the module root (the
// directory holding go.mod, found by walking up from the package).
func findData() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the package directory: cannot locate ../shared/data/uai")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data", "uai")
	if fi, err := os.Stat(data); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("UAI data directory %s is absent", data)
	}
	return data, nil
}

// optional returns path if the file exists, else "".
func optional(path string) string {
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}
