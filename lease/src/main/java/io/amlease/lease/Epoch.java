package io.amlease.lease;

import java.util.regex.Pattern;

/**
 * A term of leadership: the epoch number and the fencing token. The token is the znode version of
 * {@code <lease>/epoch} written by the acquisition, bound to the epoch node's incarnation: the name
 * of a node under {@code <lease>/epoch} made once with it, under a name never used before. Every
 * fenced write checks both, so a holder whose term was superseded cannot write, however long it was
 * paused, and neither can one whose lease was deleted whole and made again since (the new epoch
 * node's versions start again at 0, but its incarnation is another).
 *
 * @param value epoch number, starting at 1 and increasing by one per acquisition
 * @param token znode version of {@code <lease>/epoch} that this term wrote
 * @param incarnation the name of the incarnation node, {@code <lease>/epoch/<incarnation>}
 */
public record Epoch(long value, int token, String incarnation) {
  /** What an incarnation's name looks like: {@code i-} and a random UUID when amlease made it. */
  public static final Pattern INCARNATION = Pattern.compile("i-[A-Za-z0-9-]{1,64}");

  public Epoch {
    if (value < 1) {
      throw new IllegalArgumentException("epoch must be >= 1, was " + value);
    }
    if (incarnation == null || !INCARNATION.matcher(incarnation).matches()) {
      throw new IllegalArgumentException("epoch incarnation must match " + INCARNATION.pattern()
          + ", was '" + incarnation + "'");
    }
  }

  @Override
  public String toString() {
    return value + " (token " + token + ")";
  }
}
