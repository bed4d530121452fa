package io.amlease.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The seeded fault schedule of one torture trial: how many holders each contender runs, and two
 * tracks of faults that run at the same time, so that a holder's fault can fall into an election.
 * <ul>
 *   <li>the <em>ensemble</em> track: cutting one server off from its peers (the server most of the
 *       acting holders are connected to, a follower if any), killing the quorum leader and starting
 *       it again, stopping every server and starting them all again, and a rolling restart's step
 *       that gives one follower a {@code maxSessionTimeout} below T, with every holder's links to the
 *       other servers refused for a moment so that their sessions move onto it and come back with a
 *       shorter timeout (DESIGN.md §1 G2: a re-negotiated timeout);</li>
 *   <li>the <em>holder</em> track, each fault on one holder: a silent or reset partition of its
 *       links to every server, a process pause (SIGSTOP … SIGCONT), and SIGKILL of its process,
 *       which a supervisor starts again after the step's down time. A pause stops the holder
 *       process alone: {@code hold}'s COMMAND runs in a process group of its own and goes on, as it
 *       would through the runner's long GC pause. And an operator's {@code deleteall} of the lease
 *       while the acting holder's whole tree is frozen (DESIGN.md §1 G3: tokens bound to the epoch
 *       node's incarnation): a new holder begins epoch 1 of a new incarnation, the frozen one thaws
 *       after the step's duration and must be refused and stop.</li>
 * </ul>
 * Beside the tracks, about half the trials run one holder (of every contender) with its clocks at
 * a rate r for the whole trial ({@link ClockRate}): within ±ρ of 1 in half of those, outside it in
 * the others.
 * Each track's faults come one after another, so no two ensemble faults overlap (an isolation and a
 * restart of every server at once would leave no quorum to learn from) and no holder has two faults
 * at once. The same seed gives the same schedule to every contender, and {@code --seed} replays it.
 *
 * @param holders 2 or 3 per contender
 * @param ensemble the ensemble track, in order, each step after its {@link Step#gapBefore()}
 * @param holderFaults the holder track, likewise
 */
record TortureSchedule(long seed, int holders, List<Step> ensemble, List<Step> holderFaults,
    Optional<ClockRate> clockRate) {

  /** ρ, the clock-rate error G2 tolerates (amlease's default). */
  static final double RHO = io.amlease.lease.LeaseConfig.DEFAULT_CLOCK_RATE_ERROR;

  /** Holder {@code holder}'s clocks (CLOCK_MONOTONIC included) run at {@code rate} for the trial. */
  record ClockRate(int holder, double rate) {
    /** Within ±ρ, where G2 must hold. */
    boolean withinRho() {
      return Math.abs(rate - 1) <= RHO + 1e-9;
    }
  }

  enum Kind {
    ISOLATE_SERVER(true), LEADER_KILL(true), ENSEMBLE_RESTART(true), TIMEOUT_SHRINK(true),
    CLIENT_SILENT(false), CLIENT_RESET(false), PAUSE(false), KILL_HOLDER(false), DELETEALL(false);

    private final boolean ensembleWide;

    Kind(boolean ensembleWide) {
      this.ensembleWide = ensembleWide;
    }

    boolean ensembleWide() {
      return ensembleWide;
    }

    /** As in results.json: {@code client-silent}, {@code kill-holder}, … */
    String label() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * One fault. {@code holder} applies to the holder track only; {@code duration} is how long the
   * fault lasts (for a kill: how long the holder stays down; for a leader kill or a restart of every
   * server: how long the servers stay down).
   */
  record Step(Duration gapBefore, Kind kind, int holder, Duration duration) {}

  TortureSchedule {
    ensemble = List.copyOf(ensemble);
    holderFaults = List.copyOf(holderFaults);
    java.util.Objects.requireNonNull(clockRate);
  }

  static TortureSchedule generate(long seed, Duration t, Duration length) {
    SplittableRandom r = new SplittableRandom(seed);
    int holders = 2 + r.nextInt(2);
    // Each track draws from its own split stream: a change to one track's draws leaves the other's
    // schedule as it was.
    List<Step> ensemble = track(r.split(), t, length, holders, true);
    List<Step> holderFaults = track(r.split(), t, length, holders, false);
    return new TortureSchedule(seed, holders, ensemble, holderFaults, clockRate(r.split(), holders));
  }

  /**
   * Half the trials: none. A quarter: a rate within ±ρ (0.95 to 1.05). A quarter: outside it, slow
   * (0.5 to 0.9, where a holder's grace lasts longer than it believes) or fast (1.1 to 2).
   */
  private static Optional<ClockRate> clockRate(SplittableRandom r, int holders) {
    int roll = r.nextInt(100);
    int holder = r.nextInt(holders);
    double u = r.nextDouble();
    if (roll < 50) {
      return Optional.empty();
    }
    double rate = roll < 75 ? 1 - RHO + 2 * RHO * u
        : u < 0.5 ? 0.5 + 0.8 * u : 1.1 + 1.8 * (u - 0.5);
    return Optional.of(new ClockRate(holder, Math.round(rate * 1000) / 1000.0));
  }

  List<Step> allSteps() {
    List<Step> all = new ArrayList<>(ensemble);
    all.addAll(holderFaults);
    return all;
  }

  private static List<Step> track(SplittableRandom r, Duration t, Duration length, int holders,
      boolean ensembleWide) {
    List<Step> steps = new ArrayList<>();
    long used = 0;
    while (true) {
      Duration gap = Duration.ofMillis(200 + r.nextInt(1500));
      Kind kind = ensembleWide ? ensembleKind(r.nextInt(100)) : holderKind(r.nextInt(100));
      Duration d = duration(kind, t, r.nextDouble());
      int holder = r.nextInt(holders);
      used += gap.toNanos() + d.toNanos();
      if (used > length.toNanos()) {
        return steps;
      }
      steps.add(new Step(gap, kind, ensembleWide ? 0 : holder, d));
    }
  }

  private static Kind ensembleKind(int roll) {
    return roll < 35 ? Kind.ISOLATE_SERVER : roll < 65 ? Kind.LEADER_KILL
        : roll < 80 ? Kind.ENSEMBLE_RESTART : Kind.TIMEOUT_SHRINK;
  }

  private static Kind holderKind(int roll) {
    return roll < 22 ? Kind.CLIENT_SILENT : roll < 40 ? Kind.CLIENT_RESET : roll < 68 ? Kind.PAUSE
        : roll < 90 ? Kind.KILL_HOLDER : Kind.DELETEALL;
  }

  /**
   * Outages, isolations and pauses from 0.1 T to 2.5 T: blips, and partitions long enough for the
   * session to expire. A killed holder stays down up to T; servers stay down up to 1.5 T (a
   * restart of every server up to T/2, since every holder waits it out). A shrunk timeout stays
   * from T/2 to 2.5 T before the server is restarted with its own again.
   */
  private static Duration duration(Kind kind, Duration t, double u) {
    double f = switch (kind) {
      case CLIENT_SILENT, CLIENT_RESET, PAUSE, ISOLATE_SERVER, DELETEALL -> 0.1 + 2.4 * u;
      case KILL_HOLDER -> u;
      case LEADER_KILL -> 0.1 + 1.4 * u;
      case ENSEMBLE_RESTART -> 0.5 * u;
      case TIMEOUT_SHRINK -> 0.5 + 2 * u;
    };
    return Duration.ofMillis((long) (t.toMillis() * f));
  }
}
