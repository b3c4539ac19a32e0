import { type CompiledValue, compileExpression } from '../../engine/expressions.js';

/** The compiled value of expression `source`, with a count of the times JSONata evaluated it. */
export function trackedExpression(source: string): { value: CompiledValue; calls: () => number } {
  const expr = compileExpression(source);
  let calls = 0;
  const evaluate = expr.expression.evaluate.bind(expr.expression);
  expr.expression.evaluate = (input, bindings) => {
    calls++;
    return evaluate(input, bindings);
  };
  return { value: { kind: 'expression', expr } as CompiledValue, calls: () => calls };
}
