/**
 * The lab: what the {@code bench} and {@code capacity} commands share to run the writer under a measured load. Placement
 * on CPU sets ({@link io.tsdbwriter.lab.CpuList}, {@link io.tsdbwriter.lab.Placement},
 * {@link io.tsdbwriter.lab.CpuPinning}); the receivers a command starts ({@link io.tsdbwriter.lab.FreshReceiver}); the
 * processes it starts, all made by {@link io.tsdbwriter.lab.ChildProcess} (no {@code TSDB_WRITER_*} variable inherited);
 * the writer processes of a cell ({@link io.tsdbwriter.lab.BenchCell}, {@link io.tsdbwriter.lab.WriterCellRunner},
 * {@link io.tsdbwriter.lab.CellResult}); the feeders ({@link io.tsdbwriter.lab.SourceFeed},
 * {@link io.tsdbwriter.lab.KafkaFeeder}, {@link io.tsdbwriter.lab.InputRate}); CPU and metric sampling
 * ({@link io.tsdbwriter.lab.SystemCpu}, {@link io.tsdbwriter.lab.VmProbe}, {@link io.tsdbwriter.lab.PromText},
 * {@link io.tsdbwriter.lab.DpkgVersion}); the machine line and figures of their reports ({@link io.tsdbwriter.lab.Machine},
 * {@link io.tsdbwriter.lab.Figures}).
 *
 * <p>Only the commands use it ({@code cli}, {@code bench}, {@code capacity.search}); it knows neither {@code bench} nor
 * {@code capacity}, so neither of the two reaches the other ({@code ArchitectureTest}, docs/architecture.md).
 */
package io.tsdbwriter.lab;
