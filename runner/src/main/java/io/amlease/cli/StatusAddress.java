package io.amlease.cli;

/**
 * {@code [HOST:]PORT} for a status server, validated with a message that names the flag. Without a
 * HOST it listens on loopback only: the page tells who holds the lease and when it expires, so
 * serving it to the network ({@code 0.0.0.0:PORT}) is a choice to make explicitly.
 */
record StatusAddress(String host, int port) {
  private static final String LOOPBACK = "127.0.0.1";

  static StatusAddress parse(String flag, String value) throws CommandLines.UsageException {
    int colon = value.lastIndexOf(':');
    String host = colon < 0 ? LOOPBACK : value.substring(0, colon);
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
