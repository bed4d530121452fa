package io.amlease.lease;

/** Base of the lease's checked errors. */
public class LeaseException extends Exception {
  public LeaseException(String message) {
    super(message);
  }

  public LeaseException(String message, Throwable cause) {
    super(message, cause);
  }

  /** ZooKeeper could not be reached within the connection timeout. */
  public static final class Unavailable extends LeaseException {
    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** ZooKeeper denied access (ACL), or credentials could not be read. */
  public static final class AccessDenied extends LeaseException {
    public AccessDenied(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Lease state in ZooKeeper is malformed (for example a non-numeric epoch). */
  public static final class BadData extends LeaseException {
    public BadData(String message) {
      super(message);
    }
  }

  /** Refused locally: this holder does not hold the lease (any more), or not with that epoch. */
  public static final class NotLeader extends LeaseException {
    public NotLeader(String message) {
      super(message);
    }
  }

  /** ZooKeeper refused a write because the epoch moved on: this holder was superseded. */
  public static final class Fenced extends LeaseException {
    public Fenced(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * A contender of a newer generation (a later YARN attempt of the same application) campaigns for
   * this lease: an older generation never acquires after that (G6).
   */
  public static final class Outdated extends LeaseException {
    public Outdated(String message) {
      super(message);
    }
  }
}
