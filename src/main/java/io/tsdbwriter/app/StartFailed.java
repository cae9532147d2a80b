package io.tsdbwriter.app;

/**
 * A {@code run} whose start failed after its one line was logged: {@link WriterService#run()} returns
 * {@link #exitCode} (a {@link ExitCodes} value) and prints no report. No stack trace: the line said it all.
 */
final class StartFailed extends Exception {
    final int exitCode;

    StartFailed(int exitCode) {
        super(null, null, false, false);
        this.exitCode = exitCode;
    }
}
