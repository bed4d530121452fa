package io.amlease.lease;

/** A configuration value broke a rule; {@link #key()} names the configuration key at fault. */
public final class LeaseConfigException extends IllegalArgumentException {
  private final String key;

  public LeaseConfigException(String key, String message) {
    super(message);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
