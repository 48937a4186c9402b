import { IMPACT_LEVELS, type ImpactLevel } from '../analysis/analyzers/analysis-result.schema';
import { type ReportType, reportTypeOf } from '../disclosures/report-type';

/** Lowest first: a watch entry's `min_impact` lets through its level and those after it. */
const ASCENDING_IMPACT: readonly ImpactLevel[] = [...IMPACT_LEVELS].reverse();

/** What a watch entry's notification filters compare for one filing. */
export interface FilingFilterKeys {
  category: ReportType;
  /**
   * The `min_impact` settings the filing passes: those at or below its analysis's impact
   * level; every level when it has no analysis at send time (it counts as passing).
   */
  passingMinImpacts: ImpactLevel[];
}

export function filingFilterKeys(reportName: string, impact: string | null): FilingFilterKeys {
  const rank = ASCENDING_IMPACT.indexOf(impact as ImpactLevel);
  return {
    category: reportTypeOf(reportName),
    passingMinImpacts: rank < 0 ? [...ASCENDING_IMPACT] : ASCENDING_IMPACT.slice(0, rank + 1),
  };
}
