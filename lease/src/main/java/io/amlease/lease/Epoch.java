package io.amlease.lease;

/**
 * A term of leadership: the epoch number and the fencing token. The token is the znode version of
 * {@code <lease>/epoch} written by the acquisition; every fenced write checks it, so a holder whose
 * term was superseded cannot write, however long it was paused.
 *
 * @param value epoch number, starting at 1 and increasing by one per acquisition
 * @param token znode version of {@code <lease>/epoch} that this term wrote
 */
public record Epoch(long value, int token) {
  public Epoch {
    if (value < 1) {
      throw new IllegalArgumentException("epoch must be >= 1, was " + value);
    }
  }

  @Override
  public String toString() {
    return value + " (token " + token + ")";
  }
}
