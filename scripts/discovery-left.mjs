// What a discovery report leaves to a person, counted from its own fields (per operation read: `to_confirm` without
// and with a `value`, `unplaced`, `unseen`): the command line's summary says it, and its check holds the summary to it.
export function leftForAPerson(report) {
  const read = Object.values(report.operations).filter((entry) => entry.status === 200);
  const sum = (count) => read.reduce((n, entry) => n + count(entry), 0);
  return {
    fields: sum((e) => e.to_confirm.filter((item) => item.value === undefined).length),
    values: sum((e) => e.to_confirm.filter((item) => item.value !== undefined).length),
    unplaced: sum((e) => e.unplaced.length),
    unseen: sum((e) => e.unseen.length),
  };
}
