module tsdbwriter/relabel-oracle

go 1.26.7

require (
	github.com/prometheus/common v0.72.1
	github.com/prometheus/prometheus v0.316.0
	go.yaml.in/yaml/v2 v2.4.4
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/grafana/regexp v0.0.0-20250905093917-f7b3be9d1853 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
