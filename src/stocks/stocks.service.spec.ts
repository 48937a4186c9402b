import { FakeClock } from '../../test/support/fake-clock';
import type { DisclosuresRepository } from '../disclosures/disclosures.repository';
import type { FleetSignals } from '../fleet/fleet-signals';
import type { StockView } from './stock.view';
import type { StocksRepository } from './stocks.repository';
import { StocksService } from './stocks.service';

describe('StocksService.search, its ten-minute cache', () => {
  it('asks the stock master again as soon as the clock passes ten minutes, even in the same turn of the event loop', async () => {
    const clock = new FakeClock();
    let answer: StockView[] = [{ corp_code: '10000008', corp_name: '삼성전자', stock_code: '005930', market_type: 'Y' }];
    const search = jest.fn(() => Promise.resolve(answer));
    const service = new StocksService({ search } as unknown as StocksRepository, {} as DisclosuresRepository, clock, {
      on: () => undefined,
    } as unknown as FleetSignals);
    expect(await service.search('삼성')).toHaveLength(1);
    answer = [...answer, { corp_code: '10000099', corp_name: '삼성바이오', stock_code: '207940', market_type: 'Y' }];
    clock.advance(10 * 60_000);
    expect(await service.search('삼성')).toHaveLength(1);
    // Past the ten minutes, and no timer has run since the last read: lru-cache's own reading of `now` must not be reused.
    clock.advance(1);
    expect(await service.search('삼성')).toHaveLength(2);
    expect(search).toHaveBeenCalledTimes(2);
  });
});
