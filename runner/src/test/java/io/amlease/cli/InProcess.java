package io.amlease.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code Main.run} in the test JVM, for the paths that need no process of their own (flag errors,
 * help, one-shot reads). {@code hold} routes SIGTERM/SIGINT to itself once its flags parse; the
 * previous handlers are put back afterwards so the test JVM still dies on SIGTERM.
 */
final class InProcess {
  record Result(int exitCode, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  private InProcess() {}

  static Result run(String... args) {
    Signal term = new Signal("TERM");
    Signal intr = new Signal("INT");
    SignalHandler termBefore = Signal.handle(term, SignalHandler.SIG_DFL);
    Signal.handle(term, termBefore);
    SignalHandler intBefore = Signal.handle(intr, SignalHandler.SIG_DFL);
    Signal.handle(intr, intBefore);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
         PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Main.run(args, o, e);
    } finally {
      Signal.handle(term, termBefore);
      Signal.handle(intr, intBefore);
    }
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
