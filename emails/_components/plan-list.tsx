/**
 * "This week" in the digest: the first items of the week's plan
 * (`Report.plan`, src/weekly-report/plan.ts), each numbered: what to do, why
 * (the questions lost and the rivals that took them), and the task's
 * expected gain and effort where there is one. The whole plan is on the
 * report page behind the button.
 */
import { Text } from '@react-email/text';
import type { PlanItem } from '../../src/weekly-report/model';
import { taskWords } from '../../src/weekly-report/plan';
import { cls, color, text, wrapAnywhere } from './theme';

export function PlanList({ items }: { items: readonly PlanItem[] }) {
  return (
    <>
      {items.map((item, i) => (
        <Text key={item.key} data-plan-item={item.key} className={cls.ink} style={{ ...text.body, ...wrapAnywhere, margin: '0 0 12px' }}>
          <strong>{`${i + 1}. ${item.headline}`}</strong>
          <br />
          <span className={cls.muted} style={{ fontSize: '13px', lineHeight: '18px', color: color.muted }}>
            {item.why}
            {item.task ? ` ${taskWords(item.task)}` : ''}
          </span>
        </Text>
      ))}
    </>
  );
}
