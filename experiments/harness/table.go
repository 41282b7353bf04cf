package harness

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Table is a small table of results, written as CSV and printed as
// Markdown.
type Table struct {
	Header []string
	Rows   [][]string
}

// WriteCSV writes the table to dir/name.csv and returns the path.
func (t Table) WriteCSV(dir, name string) (string, error) {
	path := filepath.Join(dir, name+".csv")
	return path, WriteCSV(path, t.Header, t.Rows)
}

// Markdown returns the table in GitHub Markdown.
func (t Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// FmtG formats v with digits significant digits ("–" for NaN): the
// numbers of the Markdown tables.
func FmtG(v float64, digits int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// Ftoa formats v with the fewest digits that read back exactly: the
// numbers of the CSV files.
func Ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteCSV writes a header row and rows to path.
func WriteCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		f.Close()
		return err
	}
	if err := w.WriteAll(rows); err != nil { // WriteAll flushes
		f.Close()
		return err
	}
	return f.Close()
}
