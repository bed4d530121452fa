package io.amlease.cli;

/** {@code [HOST:]PORT} for a status server, validated with a message that names the flag. */
record StatusAddress(String host, int port) {
  private static final String ANY = "0.0.0.0";

  static StatusAddress parse(String flag, String value) throws CommandLines.UsageException {
    int colon = value.lastIndexOf(':');
    String host = colon < 0 ? ANY : value.substring(0, colon);
    String port = colon < 0 ? value : value.substring(colon + 1);
    int p;
    try {
      p = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new CommandLines.UsageException(flag + " '" + value + "': port '" + port
          + "' is not a number");
    }
    if (p < 0 || p > 65535 || host.isEmpty()) {
      throw new CommandLines.UsageException(flag + " '" + value + "': want [HOST:]PORT with PORT "
          + "in [0, 65535]");
    }
    return new StatusAddress(host, p);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
