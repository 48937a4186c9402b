import { Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../admin/admin-key.guard';
import { AnalysisSchedulerService } from './analysis-scheduler.service';
import { SchedulerStatusResponse } from './dto/analysis.dto';

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin/scheduler')
export class SchedulerAdminController {
  constructor(private readonly scheduler: AnalysisSchedulerService) {}

  @Get('status')
  @ApiOperation({ summary: 'The analysis scheduler of the whole fleet, with its live instances' })
  @ApiOkResponse({ type: SchedulerStatusResponse })
  status(): Promise<SchedulerStatusResponse> {
    return this.scheduler.status();
  }

  @Post('pause')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Pause every instance (stored; kept across restarts): running analyses finish, nothing new is claimed' })
  @ApiOkResponse({ type: SchedulerStatusResponse })
  async pause(): Promise<SchedulerStatusResponse> {
    await this.scheduler.setFleetPaused(true);
    return this.scheduler.status();
  }

  @Post('resume')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Resume claiming analyses on every instance (stored; kept across restarts)' })
  @ApiOkResponse({ type: SchedulerStatusResponse })
  async resume(): Promise<SchedulerStatusResponse> {
    await this.scheduler.setFleetPaused(false);
    return this.scheduler.status();
  }
}
