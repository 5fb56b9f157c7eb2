package dev.braid.agent;

import java.util.Optional;

/**
 * Stops the JVM when the Braid recorder that started it is gone (SIGKILL of {@code braid record},
 * a crash of the language server): the runner puts its pid in {@code BRAID_RECORDER_PID}, and a
 * daemon thread checks it every 200 ms. The JVM then exits normally, so the trace is flushed by
 * the shutdown hook; it keeps its in-progress name ({@code .part}) and is never analyzed. If the
 * exit hangs (a shutdown hook of the program), the JVM is halted after 5 s.
 */
final class RecorderWatchdog implements Runnable {
  static final int EXIT_CODE = 143;
  private final ProcessHandle recorder;

  private RecorderWatchdog(ProcessHandle recorder) {
    this.recorder = recorder;
  }

  static void start() {
    String pidText = System.getenv("BRAID_RECORDER_PID");
    if (pidText == null || pidText.isEmpty()) return;
    long pid;
    try {
      pid = Long.parseLong(pidText.trim());
    } catch (NumberFormatException e) {
      return;
    }
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    RecorderWatchdog w = new RecorderWatchdog(handle.orElse(null));
    Thread t = new Thread(w, "braid-recorder-watchdog");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void run() {
    try {
      while (recorder != null && recorder.isAlive()) Thread.sleep(200);
    } catch (InterruptedException e) {
      return;
    }
    System.err.println("[braid-agent] the recorder that started this JVM is gone; stopping (the trace stays incomplete)");
    Thread halter = new Thread(() -> {
      try {
        Thread.sleep(5000);
      } catch (InterruptedException e) {
        // exiting anyway
      }
      Runtime.getRuntime().halt(EXIT_CODE);
    }, "braid-recorder-watchdog-halt");
    halter.setDaemon(true);
    halter.start();
    System.exit(EXIT_CODE);
  }
}
