import { filingFilterKeys } from './notify-filters';

describe('filingFilterKeys', () => {
  it('derives the category from the report name', () => {
    expect(filingFilterKeys('[기재정정]주요사항보고서(유상증자결정)', null).category).toBe('major_event');
    expect(filingFilterKeys('분기보고서 (2026.09)', null).category).toBe('periodic');
  });

  it('lets a filing through the min_impact settings at or below its impact level', () => {
    expect(filingFilterKeys('x', 'low').passingMinImpacts).toEqual(['low']);
    expect(filingFilterKeys('x', 'medium').passingMinImpacts).toEqual(['low', 'medium']);
    expect(filingFilterKeys('x', 'high').passingMinImpacts).toEqual(['low', 'medium', 'high']);
  });

  it('lets a filing without an analysis (or with an unknown level) through every min_impact', () => {
    expect(filingFilterKeys('x', null).passingMinImpacts).toEqual(['low', 'medium', 'high']);
    expect(filingFilterKeys('x', 'huge').passingMinImpacts).toEqual(['low', 'medium', 'high']);
  });
});
