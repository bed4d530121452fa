package io.amlease.lease;

import java.time.Duration;
import java.util.Optional;

/**
 * The timing a lease runs with, derived from one session timeout T and checked against G2:
 * {@code grace + stopTimeout + renewInterval <= T·(1 − ρ) − slack}, so the holder has stopped acting
 * before the ZooKeeper leader can expire its session, even if the local clock runs ρ slow relative to
 * the server's, and even if the watchdog and signal delivery are {@code slack} late. {@code
 * stopTimeout} is how long the holder may take to stop after revocation (for {@code hold}: SIGTERM
 * until SIGKILL); a library user that stops at once in its callback can leave it at zero.
 *
 * <p>Why {@code renewInterval} counts: a follower touches the session when a renewal reaches it, but
 * the leader, which alone expires sessions, hears of those touches only from the follower's answers to
 * its pings (every tickTime/2; {@code LearnerHandler} handles PING, a forwarded request touches
 * nothing). A follower cut off right after answering a renewal never reports that touch, so the leader
 * may know only the renewal before it: one {@code renewInterval} earlier than {@code lastAck}.
 *
 * @param sessionTimeout T (requested before connecting, negotiated after)
 * @param grace how long after {@code lastAck} the holder keeps acting
 * @param renewInterval how often the holder proves its session alive
 * @param stopTimeout how long stopping may take after revocation
 */
public record LeaseTiming(Duration sessionTimeout, Duration grace, Duration renewInterval,
    Duration stopTimeout) {

  /**
   * Derives and checks the timing. Defaults: renewInterval = (the G2 bound − stopTimeout)/4 within
   * [T/12, T/6], grace = min(2T/3, the G2 bound − stopTimeout − renewInterval).
   *
   * <p>Why the renew interval shrinks with the budget: a holder rides out an outage shorter than
   * {@code grace − renewInterval} (G1). When a long stopTimeout leaves little of the bound, T/6 would
   * eat almost all of it (T = 10 s with a 5 s stop-timeout gave grace 1.83 s against a 1.67 s renew
   * interval: one renewal answered 170 ms late cost the lease on a busy machine). A quarter of the
   * budget keeps at least half of it as tolerance; at T = 30 s it changes nothing. Never below T/12:
   * a budget too small for that is refused as before, not served with renewals every few
   * milliseconds and a grace shorter than ZooKeeper's own reconnect delay.
   *
   * @param basis how T was obtained, for messages ("requested", "negotiated by the server")
   * @throws LeaseConfigException naming the key and the numbers when a rule is broken
   */
  public static LeaseTiming derive(Duration sessionTimeout, String basis, Optional<Duration> grace,
      Optional<Duration> renewInterval, Duration stopTimeout, double clockRateError,
      Duration slack) {
    Duration bound = Duration.ofNanos((long) (sessionTimeout.toNanos() * (1 - clockRateError)))
        .minus(slack);
    String boundText = LeaseConfig.SESSION_TIMEOUT + " (" + basis + " " + fmt(sessionTimeout)
        + ") × (1 − " + LeaseConfig.CLOCK_RATE_ERROR + " " + clockRateError + ") − "
        + LeaseConfig.SLACK + " " + fmt(slack) + " = " + fmt(bound);
    if (bound.compareTo(Duration.ofMillis(1)) < 0) {
      throw new LeaseConfigException(LeaseConfig.SESSION_TIMEOUT, LeaseConfig.SESSION_TIMEOUT
          + " is too short for any grace: " + boundText + " (G2)");
    }
    Duration budget = bound.minus(stopTimeout);
    Duration r = renewInterval.orElseGet(() -> max(sessionTimeout.dividedBy(12),
        min(sessionTimeout.dividedBy(6), budget.dividedBy(4))));
    if (grace.isPresent() && r.compareTo(grace.get()) >= 0) {
      throw renewNotBelowGrace(LeaseConfig.RENEW_INTERVAL, r, grace.get(), null);
    }
    Duration graceBound = budget.minus(r);
    if (graceBound.compareTo(Duration.ofMillis(1)) < 0) {
      String key = renewInterval.isPresent() && r.compareTo(stopTimeout) > 0
          ? LeaseConfig.RENEW_INTERVAL : LeaseConfig.STOP_TIMEOUT;
      throw new LeaseConfigException(key, LeaseConfig.STOP_TIMEOUT + " (" + fmt(stopTimeout)
          + ") + " + LeaseConfig.RENEW_INTERVAL + " (" + fmt(r) + ") leave no time for any grace: "
          + "they must be below " + boundText + " (G2)");
    }
    Duration g = grace.orElseGet(() -> min(sessionTimeout.multipliedBy(2).dividedBy(3), graceBound));
    if (g.compareTo(graceBound) > 0) {
      throw new LeaseConfigException(LeaseConfig.GRACE, LeaseConfig.GRACE + " (" + fmt(g)
          + (grace.isPresent() ? "" : ", the default") + ")"
          + (stopTimeout.isZero() ? "" : " + " + LeaseConfig.STOP_TIMEOUT + " (" + fmt(stopTimeout)
          + ")") + " + " + LeaseConfig.RENEW_INTERVAL + " (" + fmt(r) + ") must be at most "
          + boundText + ", or two holders could act at once (G2; the ZooKeeper leader may hear of "
          + "a renewal one renew interval late)");
    }
    if (r.compareTo(g) >= 0) {
      // Both defaults: the stop-timeout (or T itself) left too little for any useful grace.
      String key = renewInterval.isPresent() || grace.isPresent() ? LeaseConfig.RENEW_INTERVAL
          : stopTimeout.isZero() ? LeaseConfig.SESSION_TIMEOUT : LeaseConfig.STOP_TIMEOUT;
      throw renewNotBelowGrace(key, r, g, grace.isPresent() ? null : "the default, min(2T/3, "
          + fmt(bound) + " − " + LeaseConfig.STOP_TIMEOUT + " − " + LeaseConfig.RENEW_INTERVAL
          + "): shorten " + (renewInterval.isPresent() || stopTimeout.isZero()
              ? LeaseConfig.RENEW_INTERVAL
              : LeaseConfig.STOP_TIMEOUT + " (" + fmt(stopTimeout) + ")") + " or lengthen "
          + LeaseConfig.SESSION_TIMEOUT);
    }
    return new LeaseTiming(sessionTimeout, g, r, stopTimeout);
  }

  private static LeaseConfigException renewNotBelowGrace(String key, Duration r, Duration g,
      String why) {
    return new LeaseConfigException(key, LeaseConfig.RENEW_INTERVAL + " ("
        + fmt(r) + ") must be less than " + LeaseConfig.GRACE + " (" + fmt(g)
        + (why == null ? "" : ", " + why) + ")");
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static String fmt(Duration d) {
    return Durations.format(d);
  }
}
