package io.amlease.lease;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints durations the way operators type them: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}. */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

  private Durations() {}

  /** Like {@link #parse} but also accepts {@code 0} without a unit. */
  public static Duration parseNonNegative(String key, String text) {
    return text != null && text.trim().equals("0") ? Duration.ZERO : parse(key, text);
  }

  /** @throws LeaseConfigException naming {@code key} when {@code text} is not a duration with a unit */
  public static Duration parse(String key, String text) {
    Matcher m = FORM.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      throw new LeaseConfigException(key, key + ": '" + text
          + "' is not a duration; use a number with a unit: 500ms, 10s, 2m, 1h");
    }
    BigDecimal amount = new BigDecimal(m.group(1));
    long nanosPerUnit = switch (m.group(2)) {
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      default -> 3_600_000_000_000L;
    };
    return Duration.ofNanos(amount.multiply(BigDecimal.valueOf(nanosPerUnit)).longValue());
  }

  /** Short human form: {@code 27.5s}, {@code 500ms}, {@code 2m}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (Math.abs(ms) >= 1000) {
      return BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + "s";
    }
    return ms + "ms";
  }
}
