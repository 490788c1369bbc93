/** The names of the commands `redis` sends while `work` runs, in order. */
export async function commandsDuring(redis: object, work: () => Promise<unknown>): Promise<string[]> {
  const connection = redis as unknown as { sendCommand: (command: { name: string }, ...rest: unknown[]) => unknown };
  const send = connection.sendCommand.bind(connection);
  const sent: string[] = [];
  connection.sendCommand = (command, ...rest) => {
    sent.push(command.name);
    return send(command, ...rest);
  };
  try {
    await work();
  } finally {
    connection.sendCommand = send;
  }
  return sent;
}
