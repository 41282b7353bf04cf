package chain

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File identifies an input file of a run by its content: a checkpoint
// records its inputs so that a resumed run can refuse files that changed.
type File struct {
	Path   string `json:"path"` // absolute
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// HashFiles returns the identities of the files at paths (made absolute).
func HashFiles(paths ...string) ([]File, error) {
	var out []File
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(abs)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", abs, err)
		}
		out = append(out, File{Path: abs, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

// VerifyFiles checks that every file still has the recorded size and
// SHA-256; the error names the first that does not (or is gone).
func VerifyFiles(files []File) error {
	for _, want := range files {
		got, err := HashFiles(want.Path)
		if err != nil {
			return fmt.Errorf("input %s is gone or unreadable: %w", want.Path, err)
		}
		if got[0] != want {
			return fmt.Errorf("input %s has changed since the run started (%d bytes, SHA-256 %.12s… then; %d bytes, %.12s… now): "+
				"it is not the file the run used; restore it, or start a new run", want.Path, want.Size, want.SHA256, got[0].Size, got[0].SHA256)
		}
	}
	return nil
}

// probeWritable checks that a file can be created next to path (where a
// checkpoint is written atomically).
func probeWritable(path string) error {
	probe, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".probe*")
	if err != nil {
		return fmt.Errorf("checkpoint %s: cannot write there: %w", path, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}
