package io.amlease.cli;

/** Exit statuses of {@code bin/amlease}; sysexits.h values where one fits. */
public final class ExitCodes {
  public static final int OK = 0;
  /** {@code leader}: no one holds the lease. */
  public static final int NO_LEADER = 3;
  /** Bad flags, or a configuration that breaks a rule (G2 bound included). */
  public static final int USAGE = 64;
  /** Malformed data in ZooKeeper (e.g. a non-numeric epoch node). */
  public static final int DATA_ERROR = 65;
  /** ZooKeeper unreachable within the connection timeout. */
  public static final int UNAVAILABLE = 69;
  /** Unexpected internal error. */
  public static final int SOFTWARE = 70;
  /** The lease was lost (revoked); the child was stopped. Retry later. */
  public static final int LEASE_LOST = 75;
  /** ZooKeeper denied access: the lease's ACL does not admit these credentials. */
  public static final int NO_PERMISSION = 77;
  /** COMMAND could not be started. */
  public static final int CANNOT_EXECUTE = 127;

  private ExitCodes() {}

  static final String HOLD_TABLE = """
      Exit status:
        N    COMMAND exited by itself with status N (the lease was released)
        64   bad flags, or a configuration that breaks the G2 timing bound
        65   malformed lease data in ZooKeeper
        69   ZooKeeper unreachable within --connect-timeout before acquiring, or the
             --status-port address cannot be listened on
        70   internal error
        75   the lease was revoked; COMMAND's process group was stopped (SIGTERM, then
             SIGKILL), or COMMAND was not started because the term had already ended
        77   ZooKeeper denied access to the lease nodes (ACL)
        127  COMMAND could not be started
        128+S  hold was signalled (S) before COMMAND started
      COMMAND runs in its own session and process group; whatever it starts there is
      stopped with it, also when hold itself is killed. On SIGTERM/SIGINT hold forwards
      the signal to that group, releases the lease and exits with COMMAND's status.""";

  static final String PUBLISH_TABLE = """
      Exit status:
        0    published; the leader info as written is printed
        64   bad flags or endpoints, or no epoch/token (flag or environment)
        65   malformed leader info, or a damaged lease (no epoch node)
        69   ZooKeeper unreachable within --connect-timeout
        70   internal error
        75   the term is over (a newer holder, or no holder): nothing was written
        77   ZooKeeper denied access to the lease nodes (ACL)""";

  static final String LEADER_TABLE = """
      Exit status:
        0    a leader was printed (or --watch ended by a signal)
        3    no one holds the lease
        64   bad flags
        65   malformed leader info in ZooKeeper
        69   ZooKeeper unreachable within --connect-timeout""";
}
