// relabel-oracle applies a relabel config with Prometheus' own model/relabel, the oracle of the writer's Java
// relabeling (src/test/java/io/tsdbwriter/relabel/RelabelOracleTest.java).
//
// Usage: relabel-oracle CONFIG.yml < series.jsonl
//
// CONFIG.yml is a YAML list of relabel_config entries, read as Prometheus reads one (yaml.UnmarshalStrict, then
// Validate with UTF-8 label names, Prometheus 3's default). Each input line is one label set as a JSON object
// {"name": "value", ...}; each output line is the result: the label set after relabel.ProcessBuilder as a JSON object,
// or null when a rule dropped it. An invalid config prints the error to stderr and exits 2.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
	"go.yaml.in/yaml/v2"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: relabel-oracle CONFIG.yml < series.jsonl")
		os.Exit(2)
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var cfgs []*relabel.Config
	if err := yaml.UnmarshalStrict(text, &cfgs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i, c := range cfgs {
		if err := c.Validate(model.UTF8Validation); err != nil {
			fmt.Fprintf(os.Stderr, "entry %d: %v\n", i+1, err)
			os.Exit(2)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var m map[string]string
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		lb := labels.NewBuilder(labels.FromMap(m))
		var result any
		if relabel.ProcessBuilder(lb, cfgs...) {
			result = lb.Labels().Map()
		}
		b, err := json.Marshal(result)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
