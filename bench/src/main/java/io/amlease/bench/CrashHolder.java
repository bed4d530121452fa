package io.amlease.bench;

import java.time.Duration;

/**
 * The holder process of the crash scenario: acquires as one contender, prints {@code ACTING} on
 * stdout, then holds until it is killed. Arguments: contender label, connect string, lease path,
 * session timeout in milliseconds.
 */
public final class CrashHolder {
  private CrashHolder() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: CrashHolder CONTENDER CONNECT PATH SESSION_TIMEOUT_MS");
      System.exit(64);
    }
    Contender c = Contender.byLabel(args[0]);
    Participant p = c.participant("crashing", args[1], args[2],
        Duration.ofMillis(Long.parseLong(args[3])), new Timeline(), false);
    p.start();
    if (!Waits.until(p::acting, Duration.ofSeconds(30))) {
      System.err.println("CrashHolder: did not acquire within 30 s");
      System.exit(69);
    }
    System.out.println("ACTING");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
