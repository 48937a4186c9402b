/** Raised on the instance that recorded it, once a filing's analysis reached an end (COMPLETED or UNAVAILABLE). */
export const ANALYSIS_SETTLED = 'analysis.settled';

export interface AnalysisSettledEvent {
  rceptNo: string;
}
