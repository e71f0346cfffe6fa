package serve

import (
	"net/http"
	"runtime"
	"strconv"

	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg        *prometheus.Registry
	queries    *prometheus.CounterVec   // algo, code
	latency    *prometheus.HistogramVec // algo: the whole query, queue included
	compute    *prometheus.HistogramVec // algo: the run's compute
	errors     *prometheus.CounterVec   // code: every error answer
	canceled   *prometheus.CounterVec   // reason: client, timeout
	rejected   prometheus.Counter
	queued     prometheus.Gauge
	running    prometheus.Gauge
	graphs     prometheus.Gauge
	graphBytes prometheus.Gauge
}

func newMetrics(s *Server) *metrics {
	reg := prometheus.NewRegistry()
	buckets := prometheus.ExponentialBuckets(0.0005, 2, 20) // 0.5 ms to ~4 min
	m := &metrics{
		reg: reg,
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hpgraph_queries_total",
			Help: "Queries answered, by algorithm and HTTP status."}, []string{"algo", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hpgraph_query_duration_seconds",
			Help: "Query latency, from the request to the answer (queue included).", Buckets: buckets}, []string{"algo"}),
		compute: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hpgraph_query_compute_seconds",
			Help: "Compute time of the queries' runs (PREPROCESS apart).", Buckets: buckets}, []string{"algo"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hpgraph_http_errors_total",
			Help: "Error answers, by HTTP status."}, []string{"code"}),
		canceled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hpgraph_queries_canceled_total",
			Help: "Queries stopped before their answer: their client went away (client) or their time ran out (timeout)."}, []string{"reason"}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{Name: "hpgraph_queue_rejected_total",
			Help: "Queries refused with 503 because the queue was full."}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{Name: "hpgraph_queue_length",
			Help: "Queries waiting for a worker."}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{Name: "hpgraph_queries_running",
			Help: "Queries running on a worker."}),
		graphs: prometheus.NewGauge(prometheus.GaugeOpts{Name: "hpgraph_graphs_loaded",
			Help: "Graphs loaded."}),
		graphBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "hpgraph_graph_bytes",
			Help: "Estimated bytes the loaded graphs take on the backend (what the device budget counts)."}),
	}
	reg.MustRegister(m.queries, m.latency, m.compute, m.errors, m.canceled, m.rejected, m.queued, m.running, m.graphs, m.graphBytes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hpgraph_host_memory_bytes",
		Help: "Host memory the Go runtime holds from the OS (runtime.MemStats.Sys)."}, func() float64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.Sys)
	}))
	dev := deviceName(s.cfg.Backend)
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hpgraph_device_memory_peak_bytes",
		Help: "Most device memory the process has held (0 on the CPU backend)."}, func() float64 {
		peak, _, _ := vertexprog.DeviceMemory(dev)
		return float64(peak)
	}))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hpgraph_device_memory_total_bytes",
		Help: "The device's memory (0 on the CPU backend)."}, func() float64 {
		_, total, _ := vertexprog.DeviceMemory(dev)
		return float64(total)
	}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) requestError(code int) { m.errors.WithLabelValues(strconv.Itoa(code)).Inc() }
